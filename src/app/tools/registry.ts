import { boxAnnotationTool } from './boxAnnotationTool';
import { boxTool } from './boxTool';
import { brushTool, eraserTool } from './brushTool';
import { negativePointTool, positivePointTool } from './pointTool';
import { selectTool } from './selectTool';
import { textTool } from './textTool';
import type { ToolDefinition } from './toolDefinition';

/**
 * Every tool of the studio, in toolbar order. The toolbar's buttons, the keys that pick a tool, the
 * help overlay and the canvas all read this list: a new tool is its file and one line here.
 */
export const TOOLS: readonly ToolDefinition[] = [positivePointTool, negativePointTool, boxTool, textTool, selectTool, boxAnnotationTool, brushTool, eraserTool];

export type ToolId = string;

export function toolById(id: ToolId): ToolDefinition {
  const tool = TOOLS.find((t) => t.id === id);
  if (!tool) throw new Error(`no tool "${id}" in the registry`);
  return tool;
}

/** The tool a key picks (either case), if any. */
export function toolForKey(key: string): ToolDefinition | undefined {
  return TOOLS.find((t) => t.key.toLowerCase() === key.toLowerCase());
}
