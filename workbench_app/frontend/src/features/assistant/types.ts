// The assistant's shapes, from the generated OpenAPI schema.
import type { components } from "../../api/schema";
import type { Result } from "../results/types";

type Schemas = components["schemas"];
export type Conversation = Schemas["Conversation"];
export type AssistantMessage = Schemas["AssistantMessage"];
export type Artifact = Schemas["AssistantArtifact"];
export type AssistantStatus = Schemas["AssistantStatus"];
export type AssistantProvider = Schemas["AssistantProvider"];

/** A tool run as the stream reports it: what it ran and, while the answer is live, its result. */
export interface ToolRun {
  name: string;
  artifact: Artifact | null;
  result?: Result;
  error?: { code: string; message: string };
}

export interface Notice {
  code: string;
  message: string;
}
