// Accounts found by part of their name or e-mail, each added to the recipients with one button.
// The server lists only the people the caller may see (administrators: everyone; others: themselves
// and their groups' members), name and e-mail only; an address typed in full still works.
import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorMessage } from "../../ui/ErrorMessage";
import fieldStyles from "../../ui/Field.module.css";
import { TextField } from "../../ui/TextField";
import { parseRecipients } from "./sendingDraft";
import { recipientAccountsQuery } from "./subscriptionQueries";

export function RecipientPicker({ recipients, onAdd }: { recipients: string; onAdd: (email: string) => void }) {
  const { t } = useTranslation();
  const [search, setSearch] = useState("");
  const searched = useDeferredValue(search.trim());
  const found = useQuery(recipientAccountsQuery(searched));
  const chosen = new Set(parseRecipients(recipients).map((email) => email.toLowerCase()));
  const accounts = searched ? found.data ?? [] : [];
  return (
    <div className={fieldStyles.field}>
      <TextField label={t("subscriptions.findAccount")} type="search" value={search} maxLength={100}
        onChange={setSearch} hint={t("subscriptions.findAccountHint")} />
      <ErrorMessage error={found.error} />
      {accounts.length > 0 && (
        <ul aria-label={t("subscriptions.accountsFound")}>
          {accounts.map((account) => {
            const who = account.display_name ? `${account.display_name} (${account.email})` : account.email;
            const added = chosen.has(account.email.toLowerCase());
            return (
              <li key={account.user_id}>
                <button type="button" disabled={added} onClick={() => onAdd(account.email)}>
                  {added ? t("subscriptions.accountAdded", { who }) : t("subscriptions.addAccount", { who })}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {searched && found.data && accounts.length === 0 && (
        <p className={fieldStyles.hint}>{t("subscriptions.noAccountFound")}</p>
      )}
    </div>
  );
}
