/**
 * Progress of a long benchmark on stderr, so a run that takes minutes shows it is alive, how far
 * it is and about how long is left; stdout stays the report (`--json` included). On a terminal
 * one line is rewritten in place; in a log, a line every 10 % and at least every 30 s.
 */
export interface Progress {
  /** Call with the number of units done so far. */
  tick(done: number): void;
}

const seconds = (s: number) => (s < 90 ? `${s.toFixed(0)} s` : `${(s / 60).toFixed(1)} min`);

/** Starts reporting `label: done/total unit, elapsed, about … left`. */
export function progress(label: string, total: number, unit: string): Progress {
  const started = performance.now();
  const tty = process.stderr.isTTY === true;
  let lastWrite = 0;
  let lastTenth = 0;
  return {
    tick(done) {
      const now = performance.now();
      const elapsed = (now - started) / 1000;
      const left = done > 0 && done < total ? `, about ${seconds((elapsed / done) * (total - done))} left` : '';
      const line = `${label}: ${done}/${total} ${unit}, ${seconds(elapsed)}${left}`;
      const finished = done >= total;
      if (tty) {
        if (!finished && now - lastWrite < 250) return;
        process.stderr.write(`\r${line}\u001b[K${finished ? '\n' : ''}`);
      } else {
        const tenth = Math.floor((done * 10) / Math.max(1, total));
        if (!finished && tenth === lastTenth && now - lastWrite < 30_000) return;
        process.stderr.write(`${line}\n`);
        lastTenth = tenth;
      }
      lastWrite = now;
    },
  };
}
