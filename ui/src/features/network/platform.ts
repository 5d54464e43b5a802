/** Which kind of device the page is open on, to open its install steps first and pick its QR code. */
export type Platform = 'ios' | 'android' | 'windows' | 'macos' | 'linux';

export function detectPlatform(ua: string = navigator.userAgent, touchPoints: number = navigator.maxTouchPoints ?? 0): Platform | null {
  // iPadOS asks for desktop sites with a Mac user agent: a Mac with a touch screen is an iPad.
  if (/iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && touchPoints > 1)) return 'ios';
  if (/Android/.test(ua)) return 'android';
  if (/Windows/.test(ua)) return 'windows';
  if (/Macintosh|Mac OS X/.test(ua)) return 'macos';
  if (/Linux|X11|CrOS/.test(ua)) return 'linux';
  return null;
}

export function isFirefox(ua: string = navigator.userAgent): boolean {
  return /Firefox\//.test(ua);
}
