// The assistant: the person's conversations (start, rename, delete for good) and the chat panel,
// where an answer streams in as Markdown text with the SQL it ran and the charts it drew.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate, useParams } from "react-router";
import { api, data } from "../../api/client";
import { useSession } from "../../app/session";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { PageHeader } from "../../ui/PageHeader";
import { TextField } from "../../ui/TextField";
import { AnswerText } from "./AnswerText";
import { ArtifactView } from "./ArtifactView";
import { ASSISTANT_KEY, conversationQuery, conversationsQuery } from "./assistantQueries";
import styles from "./AssistantPage.module.css";
import type { AssistantMessage, Conversation } from "./types";
import { useAssistantStatus } from "./useAssistantStatus";
import { useAssistantChat, type LiveAnswer } from "./useAssistantChat";

function Conversations({ selected }: { selected: number | null }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const list = useQuery(conversationsQuery());
  const [renaming, setRenaming] = useState<Conversation | null>(null);
  const [title, setTitle] = useState("");
  const [deleting, setDeleting] = useState<Conversation | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function start() {
    const created = await data(api.POST("/assistant/conversations", { body: { title: t("assistant.newTitle") } }));
    await queryClient.invalidateQueries({ queryKey: conversationsQuery().queryKey });
    void navigate(`/assistant/${created.conversation_id}`);
  }

  async function rename(event: FormEvent) {
    event.preventDefault();
    try {
      await data(api.PATCH("/assistant/conversations/{conversation_id}", {
        params: { path: { conversation_id: renaming!.conversation_id } }, body: { title: title.trim() } }));
      setRenaming(null);
      await queryClient.invalidateQueries({ queryKey: ASSISTANT_KEY });
    } catch (caught) {
      setError(caught);
    }
  }

  async function remove(conversation: Conversation) {
    setDeleting(null);
    try {
      await api.DELETE("/assistant/conversations/{conversation_id}", { params: { path: { conversation_id: conversation.conversation_id } } });
      await queryClient.invalidateQueries({ queryKey: ASSISTANT_KEY });
      if (selected === conversation.conversation_id) void navigate("/assistant");
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <nav className={styles.conversations} aria-label={t("assistant.conversations")}>
      <Button variant="primary" onClick={() => void start().catch(setError)}>{t("assistant.new")}</Button>
      <ErrorMessage error={error ?? list.error} />
      {list.data?.length === 0 && <p>{t("assistant.noConversations")}</p>}
      <ul className={styles.conversationList}>
        {list.data?.map((conversation) => (
          <li key={conversation.conversation_id} className={styles.conversationItem}>
            {renaming?.conversation_id === conversation.conversation_id ? (
              <form onSubmit={rename} className={styles.renameForm}>
                <TextField label={t("assistant.title")} value={title} onChange={setTitle} required maxLength={200} autoFocus />
                <Button type="submit" variant="primary" disabled={!title.trim()}>{t("assistant.saveTitle")}</Button>
                <Button onClick={() => setRenaming(null)}>{t("common.cancel")}</Button>
              </form>
            ) : (
              <>
                <Link to={`/assistant/${conversation.conversation_id}`}
                  aria-current={selected === conversation.conversation_id ? "page" : undefined}
                  className={styles.conversationLink}>{conversation.title}</Link>
                <span className={styles.conversationActions}>
                  <Button variant="ghost" aria-label={t("assistant.renameNamed", { title: conversation.title })}
                    onClick={() => { setRenaming(conversation); setTitle(conversation.title); }}>{t("assistant.rename")}</Button>
                  <Button variant="ghost" aria-label={t("assistant.deleteNamed", { title: conversation.title })}
                    onClick={() => setDeleting(conversation)}>{t("assistant.delete")}</Button>
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
      {deleting && (
        <ConfirmDialog title={t("assistant.deleteTitle")} confirmLabel={t("assistant.delete")} danger
          onConfirm={() => void remove(deleting)} onCancel={() => setDeleting(null)}>
          <p>{t("assistant.deleteExplain", { title: deleting.title })}</p>
        </ConfirmDialog>
      )}
    </nav>
  );
}

function MessageView({ message }: { message: AssistantMessage }) {
  const { t } = useTranslation();
  const mine = message.role === "user";
  return (
    <article className={mine ? styles.question : styles.answer} aria-label={mine ? t("assistant.you") : t("assistant.assistant")}>
      {mine ? <p className={styles.plain}>{message.content}</p> : <AnswerText text={message.content} />}
      {message.artifacts.map((artifact, index) => <ArtifactView key={index} artifact={artifact} />)}
      {message.error && <p role="alert" className={styles.refused}>{message.error.message}</p>}
    </article>
  );
}

function LiveView({ live }: { live: LiveAnswer }) {
  const { t } = useTranslation();
  return (
    <>
      <article className={styles.question} aria-label={t("assistant.you")}><p className={styles.plain}>{live.question}</p></article>
      <article className={styles.answer} aria-label={t("assistant.assistant")} aria-busy={!live.finished}>
        {live.tools.map((tool, index) => (
          <div key={index}>
            <p className={styles.toolLine}>{t("assistant.usedTool", { name: tool.name })}</p>
            {tool.artifact && <ArtifactView artifact={tool.artifact} live={tool.error ? undefined : tool.result ?? undefined} />}
          </div>
        ))}
        {live.notices.map((notice, index) => <p key={index} className={styles.notice}>{notice.message}</p>)}
        <AnswerText text={live.text} />
        {!live.finished && <p role="status">{t("assistant.thinking")}</p>}
        {live.failure && <p role="alert" className={styles.refused}>{live.failure.message}</p>}
      </article>
    </>
  );
}

function Chat({ conversationId }: { conversationId: number }) {
  const { t } = useTranslation();
  const conversation = useQuery(conversationQuery(conversationId));
  const chat = useAssistantChat(conversationId);
  const [draft, setDraft] = useState("");
  const busy = chat.live !== null && !chat.live.finished;
  const shown = conversation.data?.messages ?? [];

  function submit(event: FormEvent) {
    event.preventDefault();
    const question = draft.trim();
    if (!question || busy) return;
    setDraft("");
    void chat.send(question);
  }

  if (conversation.error) return <ErrorMessage error={conversation.error} />;
  return (
    <section className={styles.chat} aria-label={t("assistant.chat")}>
      <PageHeader title={conversation.data?.title ?? t("assistant.title")} />
      <div className={styles.messages} role="log" aria-live="polite">
        {shown.map((message) => <MessageView key={message.message_id} message={message} />)}
        {chat.live && <LiveView live={chat.live} />}
      </div>
      <ErrorMessage error={chat.refusal} />
      <form onSubmit={submit} className={styles.composer}>
        <label htmlFor="assistant-question">{t("assistant.ask")}</label>
        <textarea id="assistant-question" value={draft} onChange={(event) => setDraft(event.target.value)} rows={3}
          maxLength={20000} className={styles.input}
          onKeyDown={(event) => { if (event.key === "Enter" && !event.shiftKey) submit(event); }} />
        <Button type="submit" variant="primary" disabled={busy || !draft.trim()}>{t("assistant.send")}</Button>
      </form>
    </section>
  );
}

export default function AssistantPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const { conversationId } = useParams();
  const status = useAssistantStatus();
  const selected = conversationId ? Number(conversationId) : null;

  if (status.error) return <ErrorMessage error={status.error} />;
  if (!status.data) return <p role="status">{t("common.loading")}</p>;
  if (!status.data.enabled) {
    return (
      <div>
        <h1>{t("assistant.title")}</h1>
        <p>{t("assistant.off")}</p>
        {user.is_admin && <Link to="/settings/assistant">{t("assistant.configure")}</Link>}
      </div>
    );
  }
  const usage = status.data.usage;
  return (
    <div className={styles.page}>
      <Conversations selected={selected} />
      {selected ? <Chat key={selected} conversationId={selected} /> : (
        <section className={styles.chat}>
          <h1>{t("assistant.title")}</h1>
          <p>{t("assistant.intro")}</p>
        </section>
      )}
      <p className={styles.usage}>
        {t("assistant.usage", { requests: usage.requests, requestLimit: usage.requests_per_hour || "∞",
          tokens: usage.tokens, tokenLimit: usage.tokens_per_hour || "∞" })}
      </p>
    </div>
  );
}
