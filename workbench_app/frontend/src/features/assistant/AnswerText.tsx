// The assistant's answer as Markdown rendered to React elements: any HTML in it is dropped (shown
// neither as markup nor run), images are not loaded (a picture's address could carry data away),
// links open outside the workbench.
import Markdown from "react-markdown";
import styles from "./AssistantPage.module.css";

export function AnswerText({ text }: { text: string }) {
  return (
    <div className={styles.markdown}>
      <Markdown skipHtml disallowedElements={["img"]} unwrapDisallowed
        components={{ a: ({ href, children }) => <a href={href} target="_blank" rel="noopener noreferrer">{children}</a> }}>
        {text}
      </Markdown>
    </div>
  );
}
