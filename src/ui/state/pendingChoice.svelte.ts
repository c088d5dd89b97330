// A question the Library view puts to the user before a drop or an import goes on (it will not fit in storage, or
// in the tab's memory; a bundle too large for the tab): what the check found, until the user chooses. A new question
// answers one left unanswered with 'stop'.
export class PendingChoice<Found, Choice extends string> {
  /** What the check found, while the user has not chosen (the view shows it). */
  open = $state<Found | null>(null);
  private answer: ((choice: Choice | 'stop') => void) | null = null;

  /** Shows what the check found and waits for the user's choice. */
  ask(found: Found): Promise<Choice | 'stop'> {
    this.decide('stop');
    this.open = found;
    return new Promise((resolve) => (this.answer = resolve));
  }

  /** The user's answer to the open question. */
  decide(choice: Choice | 'stop'): void {
    const answer = this.answer;
    this.answer = null;
    this.open = null;
    answer?.(choice);
  }
}
