export * from './limits';
export * from './segmentation';
