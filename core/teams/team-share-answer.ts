// The shape of a team share in the shares routes' answers (the API contract and the tests check answers against it).
import { z } from "zod";
import { SHARE_KINDS } from "./team-shares";

export const shareAnswer = z.object({
  id: z.string(),
  kind: z.enum(SHARE_KINDS),
  objectKey: z.string(),
  objectName: z.string().nullable(),
  ownerTeamId: z.string(),
  ownerTeam: z.string(),
  sharedWithTeamId: z.string().nullable(),
  sharedWithTeam: z.string().nullable(),
  createdAt: z.string(),
  createdBy: z.string(),
});
