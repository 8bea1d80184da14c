import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { bringAnonymousWorkIn, useAnonymousWork } from '../persistence/anonymousWork';
import { closeProject, createProjectFromSession, fillProjectFromSession } from '../projects/projectSession';
import { useStudio } from '../state/studioStore';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Work done in this browser before signing in: where it is, and a way to bring it into the account
 * as a new project. Shown to a signed-in person whenever such work is left, until it is brought in.
 */
export function AnonymousWorkOffer({ projectsQuery }: { projectsQuery: readonly unknown[] }) {
  const { left, broughtInto } = useAnonymousWork();
  const hasImages = useStudio((s) => s.history.present.images.length > 0);
  const [name, setName] = useState(() => `Before signing in ${new Date().toISOString().slice(0, 10)}`);
  const queryClient = useQueryClient();
  const bring = useMutation({
    mutationFn: () => {
      closeProject();
      return bringAnonymousWorkIn(name.trim(), { create: createProjectFromSession, fill: fillProjectFromSession });
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: projectsQuery }),
  });
  if (broughtInto && !left) return <p className="hint" role="status" data-testid="anonymous-work">Your work from before signing in is now the project {broughtInto}.</p>;
  if (!left) return null;
  return (
    <form
      className="anonymous-work"
      data-testid="anonymous-work"
      onSubmit={(e) => {
        e.preventDefault();
        if (!name.trim()) return;
        if (hasImages && !window.confirm('Bring it in? It replaces the photos on screen (they stay saved in this browser).')) return;
        bring.mutate();
      }}
    >
      <p className="hint" role="status">
        {`${plural(left.photos, 'photo', 'photos')} and ${plural(left.objects, 'object', 'objects')} you worked on before signing in are kept in this browser, outside this account: they show again when you log out.`}
      </p>
      <div className="row">
        <input aria-label="Name of the project for the work from before signing in" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="small" disabled={!name.trim() || bring.isPending}>
          Bring it into this account
        </button>
      </div>
      {bring.error && <p className="hint" role="alert">{bring.error.message}</p>}
    </form>
  );
}
