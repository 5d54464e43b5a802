/**
 * The nodes (replicas sharing one core store) as the pages show them: when they are worth showing at all, and their
 * state in words. One node (the default installation) shows nothing new anywhere; several, or one that is not
 * healthy, show on Home (NodesCard), as a column on the namespaces page and as a choice when creating or moving one.
 * The list comes from the shared health answer (`health.svelte.ts`), so it refreshes with the health poll.
 */
import type { NodeInfo } from './api/health.ts';
import { formatCount } from './format.ts';

export type { NodeInfo };

/** Several nodes, or a node that is not healthy: worth a card, a column and a choice. */
export function showNodes(nodes: readonly NodeInfo[] | undefined | null): nodes is readonly NodeInfo[] {
  return !!nodes && (nodes.length > 1 || nodes.some((n) => !n.healthy));
}

/** 2400 → "2 s ago", 95_000 → "2 min ago", 7_200_000 → "2 h ago", more than two days → "3 days ago". */
export function agoWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 1) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} days ago`;
}

/** "Healthy" or "Not responding", then the heartbeat: the state in words, never in colour alone. */
export function nodeStateWords(n: NodeInfo): { state: string; heartbeat: string } {
  return n.healthy
    ? { state: 'Healthy', heartbeat: `heartbeat ${agoWords(n.heartbeat_age_ms)}` }
    : { state: 'Not responding', heartbeat: `last heartbeat ${agoWords(n.heartbeat_age_ms)}` };
}

/** "2 nodes, all healthy", "3 nodes, 1 not responding". */
export function nodesSummary(nodes: readonly NodeInfo[]): string {
  const down = nodes.filter((n) => !n.healthy).length;
  return `${formatCount(nodes.length, ['node', 'nodes'])}, ${down ? `${down} not responding` : 'all healthy'}`;
}

/** A node as a choice in a list: "node-b — 3 namespaces", "(this node)", "not responding". */
export function nodeOptionWords(n: NodeInfo): string {
  const parts = [`${n.id} — ${formatCount(n.namespaces, ['namespace', 'namespaces'])}`];
  if (n.self) parts.push('this node');
  if (!n.healthy) parts.push('not responding');
  return parts.join(', ');
}

/** What an admin reads when a node is down: which namespaces stop answering and for how long. */
export function downWords(down: readonly NodeInfo[]): string {
  const names = down.map((n) => n.id).join(', ');
  const held = down.reduce((sum, n) => sum + n.namespaces, 0);
  const verb = down.length === 1 ? 'is' : 'are';
  const answer = held === 1 ? 'answers' : 'answer';
  const back = down.length === 1 ? 'it is' : 'they are';
  return `${names} ${verb} not responding: the ${formatCount(held, ['namespace', 'namespaces'])} placed there ${answer} “unavailable” (503) until ${back} back. Everything else keeps working on the other nodes.`;
}
