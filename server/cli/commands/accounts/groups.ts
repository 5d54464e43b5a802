import type { Command } from 'commander';
import { HearthClient, serverOptions } from '../../client.ts';
import { CliError, printJson, printTable } from '../../output.ts';
import { checkOutput, emit, makePosix, type OutputOpts, outputOptions, requireYes } from '../linux.ts';
import {
  BASE,
  confirm,
  enc,
  fetchList,
  findGroup,
  type Group,
  type GroupDetail,
  type ListOpts,
  listOptions,
  type Opts,
  printGroup,
  printList,
  resolveMember,
} from './shared.ts';

/** `hearth accounts groups …`: groups, their members and POSIX groups. */
export function registerGroups(accounts: Command): void {
  const groups = accounts.command('groups').description('groups (named by name or id); groups can contain accounts and other groups');
  const groupRow = (g: Group) => ({ name: g.name, description: g.description || null, id: g.id, created_at: g.createdAt });

  listOptions(groups.command('list'))
    .description('list groups, ordered by name')
    .action(async (opts: ListOpts) => {
      const list = await fetchList<Group>(new HearthClient(opts), `${BASE}/groups`, opts);
      printList(opts, list, groupRow, ['name', 'description', 'id', 'created_at']);
    });

  serverOptions(groups.command('get <group>'))
    .description('show a group and its direct members')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: Opts) => {
      const g = await findGroup(new HearthClient(opts), ref);
      if (opts.json) printJson(g);
      else printGroup(g);
    });

  serverOptions(groups.command('create <name>'))
    .description('create a group')
    .option('--description <text>', 'description')
    .option('--json', 'print JSON')
    .action(async (name: string, opts: Opts & { description?: string }) => {
      const body: Record<string, unknown> = { name };
      if (opts.description !== undefined) body.description = opts.description;
      const g = await new HearthClient(opts).json<GroupDetail>('POST', `${BASE}/groups`, body);
      if (opts.json) printJson(g);
      else process.stdout.write(`Created group ${g.name} (${g.id}).\n`);
    });

  serverOptions(groups.command('update <group>'))
    .description('rename a group or change its description')
    .option('--name <name>', 'new name')
    .option('--description <text>', 'new description')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: Opts & { name?: string; description?: string }) => {
      const body: Record<string, unknown> = {};
      if (opts.name !== undefined) body.name = opts.name;
      if (opts.description !== undefined) body.description = opts.description;
      if (Object.keys(body).length === 0) throw new CliError('nothing to change: give --name or --description');
      const client = new HearthClient(opts);
      const g = await findGroup(client, ref);
      const updated = await client.json<GroupDetail>('PATCH', `${BASE}/groups/${enc(g.id)}`, body);
      if (opts.json) printJson(updated);
      else process.stdout.write(`Updated group ${updated.name}.\n`);
    });

  serverOptions(groups.command('delete <group>'))
    .description('delete a group (its memberships go with it; member accounts stay)')
    .option('--yes', 'do not ask for confirmation')
    .action(async (ref: string, opts: Opts & { yes?: boolean }) => {
      const client = new HearthClient(opts);
      const g = await findGroup(client, ref);
      await confirm(opts.yes, 'group', g.name);
      await client.json('DELETE', `${BASE}/groups/${enc(g.id)}`);
      process.stdout.write(`Deleted group ${g.name}.\n`);
    });

  outputOptions(serverOptions(groups.command('make-posix <group>')))
    .description('give a group a GID from the Linux ID range (idempotent: a repeat keeps its GID); it grants nothing (no sudo)')
    .option('--yes', 'confirm the change (required)')
    .action(async (ref: string, opts: Opts & OutputOpts & { yes?: boolean }) => {
      checkOutput(opts);
      requireYes(opts.yes, `make group ${ref} a POSIX group`);
      const client = new HearthClient(opts);
      const g = await findGroup(client, ref);
      const r = await makePosix(client, g.id);
      emit(opts, r, () =>
        process.stdout.write(
          r.created ? `Group ${r.name} is now a POSIX group with GID ${r.gid}.\n` : `Group ${r.name} already has GID ${r.gid} (unchanged).\n`,
        ),
      );
    });

  const members = groups.command('members').description('direct members of a group: accounts (user:<login|sub>) and nested groups (group:<name|id>)');
  serverOptions(members.command('list <group>'))
    .description('list the direct members of a group')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: Opts) => {
      const g = await findGroup(new HearthClient(opts), ref);
      if (opts.json) printJson(g.members);
      else
        printTable(
          [
            ...g.members.groups.map((m) => ({ type: 'group', name: m.name, display_name: null, id: m.id })),
            ...g.members.accounts.map((m) => ({
              type: m.kind === 'service' ? 'service' : 'user',
              name: m.login,
              display_name: m.displayName || null,
              id: m.sub,
            })),
          ],
          ['type', 'name', 'display_name', 'id'],
        );
    });

  for (const [name, add] of [
    ['add', true],
    ['remove', false],
  ] as const) {
    serverOptions(members.command(`${name} <group> <members...>`))
      .description(
        `${add ? 'add accounts or nested groups to' : 'remove direct members from'} a group. A member is user:<login|sub>, group:<name|id>, or a bare name matching exactly one login or group name`,
      )
      .option('--json', 'print the group as JSON afterwards')
      .action(async (ref: string, refs: string[], opts: Opts) => {
        const client = new HearthClient(opts);
        const g = await findGroup(client, ref);
        // resolve every member first, so a typo changes nothing
        const resolved = [];
        for (const r of refs) resolved.push(await resolveMember(client, r));
        let detail: GroupDetail = g;
        for (const m of resolved) {
          const { label, ...member } = m;
          detail = add
            ? await client.json<GroupDetail>('POST', `${BASE}/groups/${enc(g.id)}/members`, member)
            : await client.json<GroupDetail>('DELETE', `${BASE}/groups/${enc(g.id)}/members?${new URLSearchParams(member as Record<string, string>)}`);
          if (!opts.json) process.stdout.write(`${add ? 'Added' : 'Removed'} ${label} ${add ? 'to' : 'from'} group ${g.name}.\n`);
        }
        if (opts.json) printJson(detail);
      });
  }
}
