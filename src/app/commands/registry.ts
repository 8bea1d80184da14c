import { TOOLS } from '../tools/registry';
import { acceptMaskCommand } from './acceptMask';
import { addPhotoBackCommand } from './addPhotoBack';
import { brushSizeCommand } from './brushSize';
import { keysLabel, runKeyCommand, type Command, type CommandScope, type KeyInput, type ToolbarGroup } from './command';
import { deleteSelectionCommand } from './deleteSelection';
import { duplicateCommand } from './duplicate';
import { escapeCommand } from './escape';
import { fitToScreenCommand } from './fitToScreen';
import { helpCommand } from './help';
import { labelAllCommand } from './labelAll';
import { labelLikeMineCommand } from './labelLikeMine';
import { mergeObjectsCommand } from './mergeObjects';
import { nextImageCommand } from './nextImage';
import { pickClassCommand } from './pickClass';
import { pickToolCommand } from './pickTool';
import { previousImageCommand } from './previousImage';
import { redoCommand } from './redo';
import { reviewAcceptCommand } from './reviewAccept';
import { reviewAcceptAllCommand } from './reviewAcceptAll';
import { reviewCloseCommand } from './reviewClose';
import { reviewFixCommand } from './reviewFix';
import { reviewNextCommand } from './reviewNext';
import { reviewPickClassCommand } from './reviewPickClass';
import { reviewPreviousCommand } from './reviewPrevious';
import { reviewRejectCommand } from './reviewReject';
import { reviewToggleCommand } from './reviewToggle';
import { segmentEverythingCommand } from './segmentEverything';
import { selectAllCommand } from './selectAll';
import { splitObjectCommand } from './splitObject';
import { stepCandidateCommand } from './stepCandidate';
import { tagImageCommand } from './tagImage';
import { tagImageWithClassCommand } from './tagImageWithClass';
import { undoCommand } from './undo';
import { zoomInCommand } from './zoomIn';
import { zoomOutCommand } from './zoomOut';

/**
 * Every keyboard command of the studio. The order is the precedence among commands whose keys
 * overlap across scopes: a mode's commands (Review open, a tag being set, a painting tool) come
 * before the studio's, and a command that is disabled or declines passes the key on. The keydown
 * handler, the help overlay and the toolbar's command buttons are generated from this list: a new
 * command is its file and a line here.
 */
export const COMMANDS: readonly Command[] = [
  undoCommand,
  redoCommand,
  duplicateCommand,
  selectAllCommand,
  reviewToggleCommand,
  reviewAcceptCommand,
  reviewAcceptAllCommand,
  reviewRejectCommand,
  reviewNextCommand,
  reviewPreviousCommand,
  reviewFixCommand,
  reviewPickClassCommand,
  reviewCloseCommand,
  tagImageWithClassCommand,
  pickClassCommand,
  mergeObjectsCommand,
  splitObjectCommand,
  previousImageCommand,
  nextImageCommand,
  brushSizeCommand,
  deleteSelectionCommand,
  tagImageCommand,
  ...TOOLS.map(pickToolCommand),
  helpCommand,
  escapeCommand,
  acceptMaskCommand,
  stepCandidateCommand,
  segmentEverythingCommand,
  labelAllCommand,
  labelLikeMineCommand,
  addPhotoBackCommand,
  zoomOutCommand,
  zoomInCommand,
  fitToScreenCommand,
];

/** Runs the command a key press calls for; the command run, or null when the key is none of theirs. */
export const runKey = (input: KeyInput) => runKeyCommand(COMMANDS, input);

/** The toolbar buttons of one group, in the registry's order. */
export const toolbarCommands = (group: ToolbarGroup, commands: readonly Command[] = COMMANDS) => commands.filter((c) => c.button?.group === group);

const SCOPE_WORDS: Readonly<Record<CommandScope, string>> = { studio: '', review: ' in Review', painting: ' with the brush or eraser', tagging: ' after I' };

export interface HelpRow {
  readonly keys: string;
  readonly action: string;
}

/** The help overlay's lines for the commands, one per command, its keys as the key test reads them. */
export function commandHelpRows(commands: readonly Command[] = COMMANDS): HelpRow[] {
  return commands.map((c) => ({ keys: `${keysLabel(c.keys)}${SCOPE_WORDS[c.scope ?? 'studio']}`, action: c.label }));
}
