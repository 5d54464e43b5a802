/**
 * Free space on the disks Hearth writes to, as writes and `/healthz` report it. Free space is what an unprivileged
 * writer may use (statfs: bavail × bsize), which is what a write of Hearth's would get.
 */
import fs from 'node:fs';

/** `0 B`, `512 B`, `163.8 KiB`, `16.0 MiB`: a size as a person reads it. */
export function humanBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** Bytes an unprivileged writer may still use on the file system holding `folder`; null when it cannot be read. */
export function freeBytes(folder: string): number | null {
  try {
    const s = fs.statfsSync(folder);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}
