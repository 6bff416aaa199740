/** The raw floor's one activity (bench/raw-worker.ts registers it): a step whose result is `bytes` long. */
export async function rawStep(bytes: number): Promise<string> {
  return 'x'.repeat(bytes);
}
