// Reading CSV back, as RFC 4180 defines it, to check that every cell of an export survives exactly as
// it was written: quoted fields with doubled quotes, commas and line breaks; rows ended by CRLF.
/** The rows of `text`; a bare line break outside quotes, or a last row without its CRLF, throws. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        cell += '"';
        index++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      index++;
    } else if (char === '\r' || char === '\n') throw new Error(`a bare line break outside quotes at ${index}`);
    else cell += char;
  }
  if (cell !== '' || row.length > 0) throw new Error('the last row is not ended by CRLF');
  return rows;
}

