/* eslint-disable @typescript-eslint/no-explicit-any */
export function createElectronMock(paths: Record<string, string>): {
  mock: any;
  record: { windows: any[]; trayMenus: any[]; appMenus: any[]; errors: string[]; opened: string[]; exitCode: number | null; forks: import('node:child_process').ChildProcess[]; switches: Array<[string, string]>; verifyProc: ((request: { hostname: string; certificate: { data: string } }, callback: (verdict: number) => void) => void) | null };
  handlers: Map<string, (event: any) => Promise<unknown>>;
  markReady: () => void;
};
