/**
 * Browser and operating system of a sign-in, from its User-Agent (`AppLoginContext.browser` / `.os`).
 *
 * The User-Agent is a claim of the browser, not a proof: the authenticator shows it as a hint next to the comparison
 * code. The rules are ordered because browsers copy each other's tokens:
 * - Edge (`Edg/`, `EdgA/`, `EdgiOS/`, legacy `Edge/`), Opera (`OPR/`, `OPiOS/`, `OPT/`, `Opera`) and Samsung Internet
 *   (`SamsungBrowser/`) all also say `Chrome/`, so they are recognised before Chrome; other Chromium brands that name
 *   themselves (Vivaldi, Yandex, UC, Whale, …) and in-app browsers are `other`, not `chrome`.
 * - Chrome (`Chrome/`, `CriOS/` on iOS) also says `Safari/`, so it comes before Safari.
 * - On iOS every browser is WebKit; the app names itself: `CriOS` (Chrome), `FxiOS` (Firefox), `EdgiOS` (Edge),
 *   `OPiOS`/`OPT` (Opera). Safari is `Version/… Safari/` without such a token.
 * - Operating system: iPhone/iPad/iPod before macOS (they say "like Mac OS X"), Android and ChromeOS (`CrOS`) before
 *   Linux (both say Linux / X11).
 * - `mac-or-ipad`: since iPadOS 13, Safari on an iPad asks for desktop sites by default and sends exactly the
 *   User-Agent of Safari on a Mac (`Macintosh; Intel Mac OS X 10_15_7 … Version/… Safari/605.1.15`). A "Macintosh"
 *   User-Agent of a WebKit browser (no Blink `Chrome/`, no Gecko `Firefox/`) therefore cannot tell a Mac from an iPad:
 *   it is `mac-or-ipad`. Chrome, Edge, Opera and Firefox on a Mac use their own engines, which an iPad does not run,
 *   so those are `macos`; a "Macintosh" User-Agent that carries an iOS app token (`CriOS`, `FxiOS`, `EdgiOS`) is an
 *   iPad (`ios`).
 */

export const BROWSERS = ['firefox', 'chrome', 'safari', 'edge', 'samsung', 'opera', 'other'] as const;
export const OPERATING_SYSTEMS = ['windows', 'macos', 'mac-or-ipad', 'ios', 'android', 'linux', 'chromeos', 'other'] as const;
export type Browser = (typeof BROWSERS)[number];
export type OperatingSystem = (typeof OPERATING_SYSTEMS)[number];

/** Longer User-Agents are cut before matching (real ones are a few hundred characters). */
const MAX_UA = 1024;

/** Browsers built on Chromium or WebKit that name themselves; they are none of the named browsers. */
const OTHER_BRANDS =
  /\b(?:Vivaldi|YaBrowser|UCBrowser|UCWEB|Whale|QQBrowser|MiuiBrowser|HuaweiBrowser|HeyTapBrowser|Silk|Puffin|DuckDuckGo|Ddg|Brave|GSA|FBAN|FBAV|FB_IAB|Instagram|Line|MicroMessenger|Electron|HeadlessChrome)\//;
const IOS_APP = /\b(?:CriOS|FxiOS|EdgiOS|OPiOS|OPT)\//;

const browserRules: Array<[RegExp, Browser]> = [
  [/\b(?:Edg|EdgA|EdgiOS|Edge)\/\d/, 'edge'],
  [/\b(?:OPR|OPiOS|OPT|OPX)\/\d|\bOpera[ /]/, 'opera'],
  [/\bSamsungBrowser\/\d/, 'samsung'],
  [/\b(?:Firefox|FxiOS|Focus)\/\d/, 'firefox'],
  [OTHER_BRANDS, 'other'],
  [/\b(?:Chrome|CriOS|Chromium)\/\d/, 'chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\/\d/, 'safari'],
];

function browserOf(ua: string, os: OperatingSystem): Browser {
  for (const [re, browser] of browserRules) if (re.test(ua)) return browser;
  // iOS Safari in a few modes drops `Version/`; an iOS WebKit page with `Safari/` and no app token is Safari.
  if ((os === 'ios' || os === 'mac-or-ipad') && /\bMobile\/\w+.*\bSafari\/\d/.test(ua)) return 'safari';
  return 'other';
}

function osOf(ua: string): OperatingSystem {
  if (/\bWindows Phone\b/.test(ua)) return 'other';
  if (/\b(?:iPhone|iPad|iPod)\b/.test(ua)) return 'ios';
  if (/\bAndroid\b/.test(ua)) return 'android';
  if (/\bCrOS\b/.test(ua)) return 'chromeos';
  if (/\bWindows NT\b|\bWin(?:32|64)\b/.test(ua)) return 'windows';
  if (/\bMacintosh\b|\bMac OS X\b/.test(ua)) {
    if (IOS_APP.test(ua)) return 'ios';
    // Blink (Chrome/) or Gecko (Firefox/, rv: … Gecko/) engines do not run on an iPad: that is a Mac.
    if (/\b(?:Chrome|Chromium|Firefox)\/\d|\bGecko\/\d{8}\b/.test(ua)) return 'macos';
    return 'mac-or-ipad';
  }
  if (/\bLinux\b|\bUbuntu\b|\bFedora\b/.test(ua)) return 'linux';
  return 'other';
}

/** The browser and operating system a User-Agent claims (`other` for what is not recognised, also for an empty one). */
export function parseUserAgent(userAgent: string | null | undefined): { browser: Browser; os: OperatingSystem } {
  const ua = (userAgent ?? '').slice(0, MAX_UA);
  const os = osOf(ua);
  return { browser: browserOf(ua, os), os };
}
