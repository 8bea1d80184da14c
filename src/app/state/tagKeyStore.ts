import { create } from 'zustand';

/** The image-tag key was pressed: the next digit tags the image with that class (any other key lets it go). */
interface TagKeyState {
  armed: boolean;
  setArmed(armed: boolean): void;
}

export const useTagKey = create<TagKeyState>((set) => ({ armed: false, setArmed: (armed) => set({ armed }) }));
