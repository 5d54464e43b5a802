/**
 * The status page (splash while the server starts, notice while it restarts, error page when it gave up).
 * The main process loads it with `?kind=starting|restarting|failed|stopping&message=…&log=…`.
 */
interface StatusBridge {
  retry(): Promise<void>;
  openLogs(): Promise<void>;
}

const params = new URLSearchParams(location.search);
const kind = params.get('kind') ?? 'starting';
const bridge = (globalThis as { hearthDesktop?: StatusBridge }).hearthDesktop;
const $ = (id: string) => document.getElementById(id)!;

const titles: Record<string, string> = {
  starting: 'Starting Hearth…',
  restarting: 'Hearth stopped unexpectedly: restarting…',
  failed: 'Hearth could not start',
  stopping: 'Stopping Hearth…',
};
$('title').textContent = titles[kind] ?? titles.starting!;
$('message').textContent = params.get('message') ?? '';
const log = params.get('log');
if (kind === 'failed') {
  $('spinner').hidden = true;
  $('actions').hidden = false;
  if (log) {
    $('log').hidden = false;
    $('log-path').textContent = log;
  }
  $('retry').addEventListener('click', () => void bridge?.retry());
  $('open-logs').addEventListener('click', () => void bridge?.openLogs());
}
