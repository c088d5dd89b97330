// Incremental Server-Sent Events parser: feed it decoded text as it arrives, get complete `data:` payloads.
// Handles events split across network chunks, CRLF line ends, comments and multi-line data fields.

export class SseParser {
  private buffer = '';
  private data: string[] = [];

  /** Returns the data payloads of every event completed by this piece of text. */
  push(text: string): string[] {
    this.buffer += text;
    const events: string[] = [];
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, nl);
      const sepLen = this.buffer.startsWith('\r\n', nl) ? 2 : 1;
      // A lone '\r' at the very end may be the first half of '\r\n': wait for more text.
      if (this.buffer[nl] === '\r' && nl + 1 === this.buffer.length) break;
      this.buffer = this.buffer.slice(nl + sepLen);
      this.line(line, events);
    }
    return events;
  }

  /** Flushes a final event that was not followed by a blank line. */
  end(): string[] {
    const events: string[] = [];
    if (this.buffer) this.line(this.buffer, events);
    this.buffer = '';
    this.line('', events);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length) events.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
  }
}
