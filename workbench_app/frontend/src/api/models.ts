// Names for the API's shapes that the screens use, all from the generated schema.
import type { components } from "./schema";

type Schemas = components["schemas"];

export type Question = Schemas["Question"] & {
  folder_id?: number;
  description?: string;
  builder?: Record<string, unknown> | null;
  variables?: Record<string, string> | null;
  visualization?: Record<string, unknown> | null;
  updated_at?: string;
};

export interface Folder {
  folder_id: number;
  name: string;
  parent_id: number | null;
  access: "view" | "edit" | null;
  personal: boolean;
  /** The person's own personal folder. */
  mine: boolean;
}
