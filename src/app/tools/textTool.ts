import { LIMITS } from '../../contract/limits';
import { TextIcon } from '../icons/icons';
import type { ToolDefinition } from './toolDefinition';

/** Prompts are typed in the panel (PromptPanel), which runs the machine below: the canvas takes no input. */
export const textTool: ToolDefinition = {
  id: 'text',
  label: 'Text prompt',
  key: 'T',
  hint: 'Describe what to find, e.g. “cup, spoon”',
  help: 'Text prompt',
  icon: TextIcon,
  cursor: 'crosshair',
  devices: [],
};

/** The text prompt tool: type one or several prompts (comma or newline separated), submit. */
export type TextToolState =
  | { readonly phase: 'editing'; readonly draft: string; readonly error: string | null }
  | { readonly phase: 'running'; readonly prompts: readonly string[] };

export type TextToolEvent = { type: 'input'; draft: string } | { type: 'submit' } | { type: 'finished' } | { type: 'clear' };

export const textToolInitial: TextToolState = { phase: 'editing', draft: '', error: null };

export function parsePrompts(draft: string): string[] {
  return draft
    .split(/[\n,;]/)
    .map((p) => p.trim())
    .filter((p, i, all) => p.length > 0 && all.indexOf(p) === i);
}

export function validatePrompts(prompts: readonly string[]): string | null {
  if (prompts.length === 0) return 'Type what to find, for example “cup, spoon”.';
  if (prompts.length > LIMITS.promptsMax) return `At most ${LIMITS.promptsMax} prompts per request.`;
  if (prompts.some((p) => p.length > LIMITS.promptMaxChars)) return `Each prompt is at most ${LIMITS.promptMaxChars} characters.`;
  return null;
}

export function textToolTransition(state: TextToolState, event: TextToolEvent): { state: TextToolState; run: readonly string[] | null } {
  switch (event.type) {
    case 'input':
      return state.phase === 'editing' ? { state: { phase: 'editing', draft: event.draft, error: null }, run: null } : { state, run: null };
    case 'submit': {
      if (state.phase !== 'editing') return { state, run: null };
      const prompts = parsePrompts(state.draft);
      const error = validatePrompts(prompts);
      if (error) return { state: { ...state, error }, run: null };
      return { state: { phase: 'running', prompts }, run: prompts };
    }
    case 'finished':
      return state.phase === 'running' ? { state: { phase: 'editing', draft: state.prompts.join(', '), error: null }, run: null } : { state, run: null };
    case 'clear':
      return { state: textToolInitial, run: null };
  }
}
