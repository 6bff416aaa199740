/**
 * How an answer reached the task: an A2A client, the a2a-temporal CLI (an A2A client that says so
 * in CLIENT_METADATA), the inbox, an email answer link, a Slack button; `temporal` for an operator's
 * Update sent to Temporal directly (the UI, `temporal workflow update`).
 */
export type AnswerChannel = 'a2a' | 'cli' | 'inbox' | 'email' | 'slack' | 'temporal';
