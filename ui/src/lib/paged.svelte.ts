/**
 * State of a searchable, paged list (`page` + `per_page` + `search`): loads, aborts the previous request when a new
 * one starts, steps back a page when the last entries of a page were deleted.
 */
import { type Failure, failure } from './util.ts';

export interface PageResult<T> {
  rows: T[];
  total: number;
}

export type Fetcher<T> = (p: { page: number; perPage: number; search: string; signal: AbortSignal }) => Promise<PageResult<T>>;

export class PagedList<T> {
  rows = $state<T[]>([]);
  page = $state(1);
  total = $state(0);
  search = $state('');
  /** True once a first answer came. */
  loaded = $state(false);
  loading = $state(false);
  error = $state<Failure | null>(null);
  readonly perPage: number;
  private readonly fetcher: Fetcher<T>;
  private controller: AbortController | null = null;

  constructor(fetcher: Fetcher<T>, perPage = 20) {
    this.fetcher = fetcher;
    this.perPage = perPage;
  }

  get pages(): number {
    return Math.max(1, Math.ceil(this.total / this.perPage));
  }

  async load(): Promise<void> {
    this.controller?.abort();
    const ctrl = (this.controller = new AbortController());
    this.loading = true;
    try {
      const r = await this.fetcher({ page: this.page, perPage: this.perPage, search: this.search.trim(), signal: ctrl.signal });
      if (r.rows.length === 0 && this.page > 1) {
        // The last entries of this page went away: show the last page there is.
        this.page = Math.max(1, Math.min(this.page - 1, Math.ceil(r.total / this.perPage)));
        return void this.load();
      }
      this.rows = r.rows;
      this.total = r.total;
      this.error = null;
      this.loaded = true;
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      this.error = failure(err);
    } finally {
      if (this.controller === ctrl) {
        this.loading = false;
        this.controller = null;
      }
    }
  }

  setSearch(search: string): void {
    if (search === this.search) return;
    this.search = search;
    this.page = 1;
    void this.load();
  }

  goto(page: number): void {
    this.page = Math.min(Math.max(1, page), this.pages);
    void this.load();
  }

  abort(): void {
    this.controller?.abort();
  }
}
