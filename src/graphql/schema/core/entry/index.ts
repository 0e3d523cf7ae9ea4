/**
 * The generic entry API, one file per root field or closely-knit group: the list (`entries`), one
 * entry (`entry`), the writes (create, update/replace, delete), the trash and translations.
 */
import './entries.ts';
import './entry.ts';
import './create.ts';
import './update.ts';
import './delete.ts';
import './trash.ts';
import './translations.ts';
