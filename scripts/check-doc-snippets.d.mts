// Types of what scripts/check-doc-snippets.mjs exports, for the tests that import it.

/** One ```ts block of a Markdown text. */
export interface DocBlock {
  line: number;
  code: string;
  skip: boolean;
  file: string;
  declare: string;
}
/** The ```ts blocks of one Markdown file. */
export function extractBlocks(markdown: string): DocBlock[];
/** The text of the first doc comment of a TypeScript file, without its ` * ` margins. */
export function moduleComment(source: string): string;
/** The ```ts examples of the module comments of typedoc.json's entry points. */
export function moduleExamples(rootDir?: string): { file: string; line: number; code: string }[];
