import { commandTooltip, runFromButton, type ToolbarGroup } from '../commands/command';
import { toolbarCommands } from '../commands/registry';

/**
 * One toolbar group's buttons, generated from the commands that name it. The enabled rules and
 * tooltips read the stores when rendered: the toolbar re-renders on the history and camera they read.
 */
export function CommandButtons({ group }: { group: ToolbarGroup }) {
  return toolbarCommands(group).map((command) => {
    const { icon: Icon, face } = command.button!;
    return (
      <button key={command.id} type="button" aria-label={command.label} title={commandTooltip(command)} disabled={command.enabled ? !command.enabled() : false} onClick={() => runFromButton(command)}>
        {Icon ? (
          <>
            <Icon /> <span aria-hidden="true">{face ?? command.label}</span>
          </>
        ) : (
          (face ?? command.label)
        )}
      </button>
    );
  });
}
