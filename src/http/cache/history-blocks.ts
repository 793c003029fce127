/** Moved to derived/history-blocks.ts: the city history is a derived answer, whose worker holds the blocks. */
export * from '../../derived/history-blocks.ts';
