/**
 * How verification tokens reach end users. A deployment that sends email provides a Mailer on
 * Services (`services.mailer`); without one, no email is sent, and outside production the token is
 * handed back in the API response instead (docs/auth.md), so a developer can finish the flow.
 */
declare module '../context.ts' {
  interface Services {
    /** Delivers end-user email verification tokens; absent = none sent (docs/auth.md). */
    mailer?: Mailer;
  }
}

export interface VerificationMessage {
  projectUuid: string;
  projectName: string;
  email: string;
  displayName: string | null;
  /** The one-time token to confirm with POST /api/auth/verify-email/confirm. */
  token: string;
  expiresAt: Date;
}

export interface Mailer {
  /** True when it really delivers mail; false for the stand-in. */
  readonly delivers: boolean;
  sendVerification(message: VerificationMessage): Promise<void>;
}

/** The stand-in used when no mailer is configured: sends nothing and logs nothing (tokens are secrets). */
export const noMailer: Mailer = {
  delivers: false,
  async sendVerification() {},
};
