/** Transient notices in the corner: successes, and progress of long transfers. */
export type ToastKind = 'success' | 'error' | 'info' | 'progress';

export interface Toast {
  id: number;
  kind: ToastKind;
  title: string;
  detail?: string;
  /** 0–100, or null for "working, size unknown" (progress toasts only). */
  progress?: number | null;
  onCancel?: () => void;
}

let nextId = 1;
/** More than this many finished notices at once is noise: the oldest go first. */
const MAX_NOTICES = 3;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

class Toasts {
  items = $state<Toast[]>([]);

  show(t: Omit<Toast, 'id'>, ttl = t.kind === 'error' ? 8000 : t.kind === 'progress' ? 0 : 5000): number {
    const id = nextId++;
    this.items.push({ ...t, id });
    if (ttl > 0) this.expire(id, ttl);
    this.trim();
    return id;
  }

  success(title: string, detail?: string): number {
    return this.show({ kind: 'success', title, detail });
  }

  error(title: string, detail?: string): number {
    return this.show({ kind: 'error', title, detail });
  }

  update(id: number, patch: Partial<Omit<Toast, 'id'>>, ttl?: number): void {
    const t = this.items.find((x) => x.id === id);
    if (!t) return;
    Object.assign(t, patch);
    if (patch.kind && patch.kind !== 'progress') t.onCancel = undefined;
    if (ttl !== undefined) this.expire(id, ttl);
    this.trim();
  }

  dismiss(id: number): void {
    clearTimeout(timers.get(id));
    timers.delete(id);
    const i = this.items.findIndex((x) => x.id === id);
    if (i >= 0) this.items.splice(i, 1);
  }

  /** Removes every notice (sign-out: nothing of the last session stays on screen); transfers still running are cancelled. */
  clear(): void {
    for (const t of [...this.items]) {
      if (t.kind === 'progress') t.onCancel?.();
      this.dismiss(t.id);
    }
  }

  private trim(): void {
    const notices = this.items.filter((x) => x.kind !== 'progress');
    for (const old of notices.slice(0, Math.max(0, notices.length - MAX_NOTICES))) this.dismiss(old.id);
  }

  private expire(id: number, ttl: number): void {
    clearTimeout(timers.get(id));
    timers.set(
      id,
      setTimeout(() => this.dismiss(id), ttl),
    );
  }
}

export const toasts = new Toasts();
