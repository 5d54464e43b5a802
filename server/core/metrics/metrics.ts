import client from 'prom-client';

/** One Prometheus registry per server instance (no globals: several servers may share a process in tests). */
export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'hearth_', eventLoopMonitoringPrecision: 20 });
  const requests = new client.Counter({
    name: 'hearth_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'hearth_http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  // Labelled children are cached: resolving labels is the costly part of an observation on a hot path.
  const children = new Map<string, { inc: () => void; observe: (v: number) => void }>();
  return {
    registry,
    observeRequest(method: string, route: string, status: number, seconds: number) {
      const key = `${method} ${status} ${route}`;
      let child = children.get(key);
      if (!child) {
        const labels = { method, route, status: String(status) };
        const c = requests.labels(labels);
        const h = duration.labels(labels);
        child = { inc: () => c.inc(), observe: (v) => h.observe(v) };
        if (children.size < 5000) children.set(key, child);
      }
      child.inc();
      child.observe(seconds);
    },
    /** Registers a gauge whose value is read when /metrics is scraped. */
    gauge(name: string, help: string, read: () => number) {
      new client.Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read());
        },
      });
    },
    /** Registers a gauge with one label, its series read when /metrics is scraped (label value → value). */
    labelledGauge(name: string, help: string, label: string, read: () => Array<[string, number]>) {
      new client.Gauge({
        name,
        help,
        labelNames: [label],
        registers: [registry],
        collect() {
          this.reset();
          for (const [value, n] of read()) this.set({ [label]: value }, n);
        },
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
