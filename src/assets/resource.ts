/** Public asset object (docs/assets.md). */
export interface AssetResource {
  id: number;
  uuid: string;
  filename: string;
  original_filename: string;
  mime_type: string;
  size: string;
  bytes: number;
  url: string;
  original_url: string | null;
  thumbnail_url: string | null;
  metadata: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}
