export * from './limits';
export * from './segmentation';
export * from './account';
export * from './problems';
export * from './embeddings';
export * from './projects';
