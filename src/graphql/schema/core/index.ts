import { builder } from '../common/builder.ts';
import '../common/page-info.ts';
import './project.ts';
import './collection/index.ts';
import './entry/index.ts';
import './version/index.ts';
import './asset.ts';
import './bulk.ts';
import './webhook.ts';
import './release.ts';
import './schedule.ts';
import './preview-token.ts';
import './subscriptions.ts';
import './release-subscription.ts';
import './user.ts';

/** The core (generic) schema: every type file registers itself on the builder when imported above. */
export const schema = builder.toSchema({ sortSchema: true });
