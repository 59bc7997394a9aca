// Administrators: the assistant's provider (any OpenAI-compatible endpoint), its key (write-only:
// the server only says whether one is set) and its limits. The server checks every value again.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, data } from "../../api/client";
import { useSession } from "../../app/session";
import { Button } from "../../ui/Button";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { TextField } from "../../ui/TextField";
import styles from "./AssistantPage.module.css";
import { assistantStatusQuery, providerQuery } from "./assistantQueries";
import type { AssistantProvider } from "./types";

const LIMITS = ["max_tool_rounds", "max_rows", "max_result_chars", "requests_per_hour", "tokens_per_hour", "timeout_seconds"] as const;
type Limit = (typeof LIMITS)[number];

export default function ProviderSettingsPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const queryClient = useQueryClient();
  const provider = useQuery({ ...providerQuery(), enabled: user.is_admin });
  const [baseUrl, setBaseUrl] = useState("");
  const [model, setModel] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [organization, setOrganization] = useState("");
  const [limits, setLimits] = useState<Record<Limit, string>>(() => Object.fromEntries(LIMITS.map((l) => [l, ""])) as Record<Limit, string>);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    const current = provider.data;
    if (!current) return;
    setBaseUrl(current.base_url ?? "");
    setModel(current.model ?? "");
    setOrganization(current.organization ?? "");
    setLimits(Object.fromEntries(LIMITS.map((l) => [l, String(current[l])])) as Record<Limit, string>);
  }, [provider.data]);

  function accepted(answer: AssistantProvider, message: string) {
    queryClient.setQueryData(providerQuery().queryKey, answer);
    void queryClient.invalidateQueries({ queryKey: assistantStatusQuery().queryKey });
    setApiKey("");
    setNotice(message);
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setNotice(null);
    const body: Record<string, unknown> = { base_url: baseUrl.trim() || null, model: model.trim() || null,
      organization: organization.trim() || null };
    if (apiKey) body.api_key = apiKey;
    for (const limit of LIMITS) body[limit] = limits[limit].trim() === "" ? null : Number(limits[limit]);
    try {
      accepted(await data(api.PUT("/assistant/provider", { body })), t("assistant.settingsSaved"));
    } catch (caught) {
      setError(caught);
    }
  }

  async function clear() {
    setError(null);
    try {
      accepted(await data(api.DELETE("/assistant/provider")), t("assistant.settingsCleared"));
    } catch (caught) {
      setError(caught);
    }
  }

  if (!user.is_admin) return <p role="alert">{t("assistant.adminsOnly")}</p>;
  if (provider.error) return <ErrorMessage error={provider.error} />;
  if (!provider.data) return <p role="status">{t("common.loading")}</p>;
  return (
    <form className={styles.settings} onSubmit={save}>
      <h1>{t("assistant.settingsTitle")}</h1>
      <p role="status">{provider.data.enabled ? t("assistant.stateOn", { source: t(`assistant.source.${provider.data.source}`) }) : t("assistant.stateOff")}</p>
      <TextField label={t("assistant.baseUrl")} value={baseUrl} onChange={setBaseUrl} type="url" maxLength={2000}
        hint={t("assistant.baseUrlHint")} />
      <TextField label={t("assistant.model")} value={model} onChange={setModel} maxLength={200} />
      <TextField label={t("assistant.apiKey")} value={apiKey} onChange={setApiKey} type="password" autoComplete="off"
        maxLength={4000} hint={provider.data.api_key_set ? t("assistant.apiKeySet") : t("assistant.apiKeyUnset")} />
      <TextField label={t("assistant.organization")} value={organization} onChange={setOrganization} maxLength={200} />
      <fieldset className={styles.limits}>
        <legend>{t("assistant.limits")}</legend>
        {LIMITS.map((limit) => (
          <TextField key={limit} label={t(`assistant.limit.${limit}`)} value={limits[limit]} inputMode="numeric"
            onChange={(value) => setLimits((old) => ({ ...old, [limit]: value }))} />
        ))}
      </fieldset>
      <ErrorMessage error={error} />
      {notice && <p role="status">{notice}</p>}
      <div className={styles.artifactActions}>
        <Button type="submit" variant="primary">{t("assistant.saveSettings")}</Button>
        <Button variant="danger" onClick={() => void clear()}>{t("assistant.clearSettings")}</Button>
      </div>
    </form>
  );
}
