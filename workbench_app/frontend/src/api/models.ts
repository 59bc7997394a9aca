// Names for the API's shapes that the screens use, all from the generated schema.
import type { components } from "./schema";

type Schemas = components["schemas"];

export type Question = Schemas["Question"];
export type Folder = Schemas["Folder"];
