/**
 * Answers to a list of questions, taken in order, with up to `ahead` of them asked before the first
 * is awaited: a decoder that runs several prompts side by side is kept busy while the caller weighs
 * each answer in turn, and what the caller keeps does not depend on which answer came back first.
 * A question not yet asked when the caller stops is never asked; one already asked is left to finish,
 * its failure unobserved.
 */
export function askAhead<T>(questions: readonly (() => Promise<T>)[], ahead: number): { next(): Promise<T> } {
  const asked: Promise<T>[] = [];
  let taken = 0;
  const askUpTo = (count: number) => {
    while (asked.length < Math.min(count, questions.length)) {
      const answer = questions[asked.length]();
      // Awaited in its turn; until then a failure must not count as unhandled.
      answer.catch(() => undefined);
      asked.push(answer);
    }
  };
  return {
    next(): Promise<T> {
      if (taken >= questions.length) return Promise.reject(new Error('askAhead: every question was taken'));
      askUpTo(taken + Math.max(1, ahead));
      return asked[taken++];
    },
  };
}
