// The sign-in page's single sign-on: a "Sign in with <provider>" link when it is configured, and
// the reason a single sign-on came back refused (`?sso_error=<code>`), in the page's language.
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import styles from "./SignInPage.module.css";
import { signOnOfferQuery } from "./signInQueries";

const ERRORS = new Set(["not_configured", "provider_unreachable", "issuer_mismatch", "state_mismatch",
  "provider_refused", "code_refused", "token_invalid", "nonce_mismatch", "no_email", "account_missing",
  "account_inactive"]);

/** The translation key of a refusal code from the server (an unknown one gets the generic text). */
export function ssoErrorKey(code: string): string {
  return `signIn.ssoError.${ERRORS.has(code) ? code : "unknown"}`;
}

export function SingleSignOnError({ code }: { code: string | null }) {
  const { t } = useTranslation();
  return code ? <div role="alert" className={styles.ssoError}>{t(ssoErrorKey(code))}</div> : null;
}

export function SingleSignOnButton({ next }: { next: string }) {
  const { t } = useTranslation();
  const offer = useQuery(signOnOfferQuery());
  if (!offer.data?.enabled) return null;
  // A navigation, not a fetch: the browser goes to the provider and comes back signed in.
  const href = `/api/v1/sso/start?${new URLSearchParams(next === "/" ? {} : { next }).toString()}`;
  return (
    <>
      <a className={styles.ssoButton} href={href}>{t("signIn.sso", { provider: offer.data.display_name })}</a>
      <p className={styles.or}>{t("signIn.or")}</p>
    </>
  );
}
