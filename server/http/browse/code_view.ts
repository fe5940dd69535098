/** A file's lines as a numbered table: each row `id="L<n>"`, its number a link to `#L<n>`. */

/** The HTML of the code view of `lines` (already escaped or highlighted HTML). */
export function codeTable(lines: string[]): string {
  const rows: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    rows.push(
      `<tr id="L${n}"><td class="ln"><a href="#L${n}">${n}</a></td><td class="lc">${
        lines[i]
      }</td></tr>`,
    );
  }
  return `<table class="lines" role="presentation"><tbody>${rows.join("")}</tbody></table>`;
}
