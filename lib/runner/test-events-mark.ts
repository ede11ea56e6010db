/** The mark before each line that lib/runner/test-events.ts writes to stderr (see there). */
export const EVENT_MARK = "\u001e#workbook-test ";
