// Checks that every relative link and anchor in README.md and docs/*.md resolves (`npm run lint`): a file
// that moved or a heading that was renamed breaks the link to it, and GitHub shows such a link as a 404.
// Anchors are the slugs GitHub gives headings (github-slugger), duplicates numbered as GitHub numbers them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt, { type Token } from 'markdown-it';

const root = resolve(import.meta.dirname, '..');
const markdown = new MarkdownIt({ html: true });
const anchorsByFile = new Map<string, Set<string>>();

function tokensOf(file: string): Token[] {
  return markdown.parse(readFileSync(file, 'utf8'), {});
}

function anchorsOf(file: string): Set<string> {
  let anchors = anchorsByFile.get(file);
  if (anchors) return anchors;
  const slugger = new GithubSlugger();
  anchors = new Set();
  const tokens = tokensOf(file);
  tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    // GitHub slugs a heading's text as shown: code spans keep their content, the markup goes.
    const text = (tokens[index + 1]?.children ?? [])
      .filter((child) => child.type === 'text' || child.type === 'code_inline')
      .map((child) => child.content)
      .join('');
    anchors?.add(slugger.slug(text));
  });
  anchorsByFile.set(file, anchors);
  return anchors;
}

function linksOf(tokens: Token[]): string[] {
  return tokens.flatMap((token) => [
    ...(token.children ? linksOf(token.children) : []),
    ...[token.attrGet('href'), token.attrGet('src')].filter((link): link is string => link !== null),
  ]);
}

function problemWith(file: string, link: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(link)) return undefined; // http:, mailto:, ...: not ours to check
  const [path = '', anchor] = link.split('#', 2);
  const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
  if (!existsSync(target)) return `no file ${relative(root, target)}`;
  if (anchor === undefined || !target.endsWith('.md') || statSync(target).isDirectory()) return undefined;
  return anchorsOf(target).has(decodeURIComponent(anchor))
    ? undefined
    : `no heading #${anchor} in ${relative(root, target)}`;
}

const docs = join(root, 'docs');
const files = [
  join(root, 'README.md'),
  ...readdirSync(docs)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(docs, name)),
];
const problems = files.flatMap((file) =>
  linksOf(tokensOf(file)).flatMap((link) => {
    const problem = problemWith(file, link);
    return problem ? [`${relative(root, file)}: ${link}: ${problem}`] : [];
  }),
);
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
console.log(`links: ${files.length} files checked, every relative link and anchor resolves`);
