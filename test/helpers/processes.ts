/** Process checks for the tests that start servers and their helper processes. */

/** Is a process with this id still there (signal 0: nothing is sent, only its existence is checked)? */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
