/** The authenticated caller, as the gateway established it (never what a client claims). */
export interface Caller {
  id: string;
  groups: string[];
}
