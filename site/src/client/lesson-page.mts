// A lesson page: start the lab session as soon as the page loads (the header shows its progress), even
// before a component asks for it.
import { labSession, pageLab } from "./lab-session.mts";

const lab = pageLab();
if (lab) labSession(lab).catch(() => undefined);
