export default function QuestionBuilderPage() {
  return null;
}
