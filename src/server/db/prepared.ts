/**
 * Kysely queries built and compiled once, then run with new values. Building and compiling a query
 * costs more than SQLite takes to run the small indexed statements of a metered call, and these
 * run several times per request. `build` receives `$`: `$(i)` stands for the i-th argument and
 * must be used where a value goes (it becomes a bound parameter, never SQL text). The SQL is
 * compiled per database on first use; every run binds the arguments in the compiled order.
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from './schema';

const SENTINEL = '\u0000maskwright-prepared-argument-';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Placeholder = (index: number) => any;

export interface PreparedQuery<Args extends readonly unknown[], Row> {
  /** Runs on `executor` (the database or a transaction of it), compiled with `root`'s dialect. */
  run(root: Kysely<Database>, executor: Kysely<Database>, ...args: Args): Promise<QueryResult<Row>>;
}

export function preparedQuery<Args extends readonly unknown[], Row = unknown>(
  build: (db: Kysely<Database>, $: Placeholder) => Compilable<Row>,
): PreparedQuery<Args, Row> {
  const byDatabase = new WeakMap<Kysely<Database>, { compiled: CompiledQuery<Row>; slots: number[] }>();
  const compile = (root: Kysely<Database>) => {
    let entry = byDatabase.get(root);
    if (!entry) {
      const compiled = build(root, (index) => `${SENTINEL}${index}`).compile();
      const slots = compiled.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(SENTINEL) ? Number(value.slice(SENTINEL.length)) : -1,
      );
      entry = { compiled, slots };
      byDatabase.set(root, entry);
    }
    return entry;
  };
  return {
    run(root, executor, ...args) {
      const { compiled, slots } = compile(root);
      const parameters = slots.map((slot, i) => (slot === -1 ? compiled.parameters[i] : args[slot]));
      return executor.executeQuery({ ...compiled, parameters });
    },
  };
}
