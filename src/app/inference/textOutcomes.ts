/**
 * What the studio says about each text prompt after a local run. Three different answers, because
 * they call for different next steps: a prompt the local model cannot understand (rephrase with a
 * known concept), a known concept that is not in the picture, and instances found.
 */
export type PromptOutcome =
  | { readonly kind: 'unknown'; readonly text: string; readonly reason?: string }
  | { readonly kind: 'none'; readonly text: string }
  | { readonly kind: 'found'; readonly text: string; readonly count: number; readonly matched?: readonly MatchedConcept[] };

/** For a general word ("animal"): which concept each found object is, and how sure the detector is. */
export interface MatchedConcept {
  readonly concept: string;
  readonly confidence: number;
}

export interface PromptAnswer {
  readonly text: string;
  /** False when the prompt maps to no class of the local detector. */
  readonly known: boolean;
  readonly reason?: string;
  /** The concepts the prompt was read as; more than one for a general word. */
  readonly classes?: readonly string[];
  readonly instances: readonly unknown[];
}

function matchedConcepts(answer: PromptAnswer): MatchedConcept[] | undefined {
  if (!answer.classes || answer.classes.length < 2) return undefined;
  const matched = answer.instances.flatMap((t) => {
    const { label, confidence } = (t ?? {}) as { label?: unknown; confidence?: unknown };
    return typeof label === 'string' && typeof confidence === 'number' ? [{ concept: label, confidence }] : [];
  });
  return matched.length ? matched : undefined;
}

export function outcomeOf(answer: PromptAnswer): PromptOutcome {
  const text = answer.text.trim();
  if (!answer.known) return { kind: 'unknown', text, reason: answer.reason };
  if (answer.instances.length === 0) return { kind: 'none', text };
  const matched = matchedConcepts(answer);
  return matched ? { kind: 'found', text, count: answer.instances.length, matched } : { kind: 'found', text, count: answer.instances.length };
}

export function outcomeMessage(outcome: PromptOutcome): string {
  switch (outcome.kind) {
    case 'unknown':
      return `'${outcome.text}' is not a concept the local model knows`;
    case 'none':
      return `no ${outcome.text} found`;
    case 'found': {
      const head = `${outcome.text}: ${outcome.count} found`;
      if (!outcome.matched) return head;
      return `${head} — ${outcome.matched.map((m) => `${m.concept} ${Math.round(m.confidence * 100)} %`).join(', ')}`;
    }
  }
}

/** The one line above the per-prompt list. */
export function outcomeSummary(outcomes: readonly PromptOutcome[]): string {
  const objects = outcomes.reduce((n, o) => n + (o.kind === 'found' ? o.count : 0), 0);
  const unknown = outcomes.filter((o) => o.kind === 'unknown').length;
  const found = `${objects} object${objects === 1 ? '' : 's'} found in this browser`;
  return unknown === outcomes.length ? 'Nothing to look for: the local model knows none of these words' : found;
}

export function hasUnknown(outcomes: readonly PromptOutcome[]): boolean {
  return outcomes.some((o) => o.kind === 'unknown');
}
