// A dashboard opened by its public link (/public/<secret>): no sign-in; it runs under the rights
// of the person who made the link, with only the filters they opened.
import { useMemo } from "react";
import { useParams } from "react-router";
import { publicLinkAccess } from "./sharedAccess";
import { SharedDashboardPage } from "./SharedDashboardView";

export default function PublicDashboardPage() {
  const linkToken = useParams().linkToken ?? "";
  const access = useMemo(() => publicLinkAccess(linkToken), [linkToken]);
  return <SharedDashboardPage access={access} />;
}
