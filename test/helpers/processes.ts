/** Process checks for the tests that start servers and their helper processes. */
import fs from 'node:fs';

/** Is a process with this id still there (signal 0: nothing is sent, only its existence is checked)? */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Is a process with this id running: there and not a zombie (a process that exited is a zombie until its parent, or
 * whoever inherited it, reaps it, and `alive` still sees it)? Linux only (/proc).
 */
export const running = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};
