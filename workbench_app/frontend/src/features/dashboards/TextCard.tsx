// A text card: Markdown drawn by react-markdown, which builds React elements and never inserts
// HTML: raw HTML in the text is dropped (skipHtml), unsafe link protocols (javascript:) are
// removed by its URL transform, and links open apart from the workbench (rel=noopener noreferrer).
import Markdown from "react-markdown";
import styles from "./DashboardPage.module.css";

export function TextCard({ text }: { text: string }) {
  return (
    <div className={styles.text}>
      <Markdown skipHtml components={{
        a: ({ href, children }) => <a href={href} target="_blank" rel="noopener noreferrer">{children}</a>,
        img: ({ alt }) => <span>{alt}</span>,
      }}>{text}</Markdown>
    </div>
  );
}
