import { describe, expect, it } from 'vitest';
import { inProgressRetryAfterSeconds, RunTimes } from './retryAfter';

describe('Retry-After of a 409 request-in-progress', () => {
  it.each([
    ['nothing measured yet → the minimum', 1, undefined, undefined, 1],
    ['fast calls → the minimum', 1, 300, { jobs: 1, workers: 1 }, 1],
    ['a 4.2 s engine → 5 s', 1, 4200, { jobs: 1, workers: 1 }, 5],
    ['three jobs on one worker → three rounds', 1, 2000, { jobs: 3, workers: 1 }, 6],
    ['three jobs on two workers → two rounds', 1, 2000, { jobs: 3, workers: 2 }, 4],
    ['an idle pool (the twin may run elsewhere) → one round', 1, 2000, { jobs: 0, workers: 2 }, 2],
    ['a larger configured minimum wins', 10, 2000, { jobs: 1, workers: 1 }, 10],
  ])('%s', (_name, minimum, typical, backlog, expected) => {
    expect(inProgressRetryAfterSeconds(minimum, typical, backlog)).toBe(expected);
  });

  it('smooths run times: the first sets the estimate, a later outlier moves it part of the way', () => {
    const times = new RunTimes();
    expect(times.typicalMs).toBeUndefined();
    times.record(1000);
    expect(times.typicalMs).toBe(1000);
    times.record(11_000);
    expect(times.typicalMs).toBe(4000);
  });
});
