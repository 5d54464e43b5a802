/** Returns a message when this Node.js is too old for Hearth, otherwise null. */
export function nodeVersionProblem(version: string): string | null;
