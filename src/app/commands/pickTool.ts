import { useTool } from '../state/toolStore';
import type { ToolDefinition } from '../tools/toolDefinition';
import type { Command } from './command';

/** A tool's key as a command: the tool registry (tools/registry.ts) stays the one list of tools. */
export function pickToolCommand(tool: ToolDefinition): Command {
  return {
    id: `tool-${tool.id}`,
    label: tool.help,
    keys: [{ key: tool.key }],
    perform: () => useTool.getState().setTool(tool.id),
  };
}
