// A strict, small XML well-formedness checker for the tests of the SVG writer: it parses a document
// into elements and throws at the first thing XML 1.0 forbids (a tag closed out of order, a bare & or
// <, an attribute twice or unquoted, a second root, text after the root, a character XML does not
// allow). It knows no DOCTYPE (the writer never writes one) and resolves only the predefined and the
// numeric character references.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (not its children's), references resolved. */
  text: string;
}

export class XmlError extends Error {}

const NAME = /[A-Za-z_:][A-Za-z0-9._:-]*/y;
const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function parseXml(source: string): XmlElement {
  let i = 0;
  const fail = (what: string): never => {
    const line = source.slice(0, i).split("\n").length;
    throw new XmlError(`${what} (line ${line}, offset ${i})`);
  };
  for (const ch of source) {
    const c = ch.codePointAt(0)!;
    const allowed =
      c === 0x9 ||
      c === 0xa ||
      c === 0xd ||
      (c >= 0x20 && c <= 0xd7ff) ||
      (c >= 0xe000 && c <= 0xfffd) ||
      c >= 0x10000;
    if (!allowed) fail(`a character XML does not allow: U+${c.toString(16)}`);
  }

  const skipSpace = (): boolean => {
    const start = i;
    while (i < source.length && " \t\r\n".includes(source[i]!)) i++;
    return i > start;
  };
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(source);
    if (!m) fail("a name was expected");
    i += m![0].length;
    return m![0];
  };
  // Text with references resolved; `<` is never allowed in it, `]]>` not in content.
  const decode = (raw: string, where: string): string =>
    raw.replace(/&([^;&<]*);|&/g, (_whole, ref: string | undefined) => {
      if (ref === undefined) fail(`a bare & in ${where}`);
      if (ref! in PREDEFINED) return PREDEFINED[ref!]!;
      const m = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(ref!);
      if (!m) fail(`an unknown reference &${ref}; in ${where}`);
      return String.fromCodePoint(m![1] !== undefined ? parseInt(m![1], 16) : Number(m![2]));
    });
  const comment = (): void => {
    const end = source.indexOf("-->", i + 4);
    if (end < 0) fail("a comment is not closed");
    if (source.slice(i + 4, end).includes("--")) fail("-- inside a comment");
    i = end + 3;
  };
  const misc = (): void => {
    for (;;) {
      skipSpace();
      if (source.startsWith("<!--", i)) comment();
      else if (source.startsWith("<!DOCTYPE", i))
        fail("a DOCTYPE (this checker does not read them)");
      else return;
    }
  };

  const element = (): XmlElement => {
    if (source[i] !== "<") fail("< was expected");
    i++;
    const el: XmlElement = { name: name(), attrs: {}, children: [], text: "" };
    for (;;) {
      const spaced = skipSpace();
      if (source.startsWith("/>", i)) {
        i += 2;
        return el;
      }
      if (source[i] === ">") {
        i++;
        break;
      }
      if (!spaced) fail("white space was expected before an attribute");
      const attr = name();
      skipSpace();
      if (source[i] !== "=") fail(`= was expected after ${attr}`);
      i++;
      skipSpace();
      const quote = source[i];
      if (quote !== '"' && quote !== "'") fail(`the value of ${attr} is not quoted`);
      const end = source.indexOf(quote!, i + 1);
      if (end < 0) fail(`the value of ${attr} is not closed`);
      const raw = source.slice(i + 1, end);
      if (raw.includes("<")) fail(`a < in the value of ${attr}`);
      if (attr in el.attrs) fail(`the attribute ${attr} twice`);
      el.attrs[attr] = decode(raw, `the value of ${attr}`);
      i = end + 1;
    }
    // Content, up to the matching end tag.
    for (;;) {
      if (i >= source.length) fail(`<${el.name}> is not closed`);
      if (source.startsWith("</", i)) {
        i += 2;
        const closing = name();
        if (closing !== el.name) fail(`</${closing}> closes <${el.name}>`);
        skipSpace();
        if (source[i] !== ">") fail("> was expected");
        i++;
        return el;
      }
      if (source.startsWith("<!--", i)) comment();
      else if (source.startsWith("<![CDATA[", i)) {
        const end = source.indexOf("]]>", i);
        if (end < 0) fail("a CDATA section is not closed");
        el.text += source.slice(i + 9, end);
        i = end + 3;
      } else if (source[i] === "<") el.children.push(element());
      else {
        const end = source.indexOf("<", i);
        const raw = source.slice(i, end < 0 ? source.length : end);
        if (raw.includes("]]>")) fail("]]> in text");
        el.text += decode(raw, `the text of <${el.name}>`);
        i += raw.length;
      }
    }
  };

  if (source.startsWith("<?xml", i)) {
    const end = source.indexOf("?>", i);
    if (end < 0) fail("the XML declaration is not closed");
    if (
      !/^<\?xml\s+version="1\.[0-9]"(\s+encoding="[A-Za-z][A-Za-z0-9._-]*")?(\s+standalone="(yes|no)")?\s*$/.test(
        source.slice(i, end),
      )
    ) {
      fail("a malformed XML declaration");
    }
    i = end + 2;
  }
  misc();
  const root = element();
  misc();
  if (i < source.length) fail("something after the root element");
  return root;
}

/** Every element in document order, the root first. */
export function allElements(root: XmlElement): XmlElement[] {
  return [root, ...root.children.flatMap(allElements)];
}
