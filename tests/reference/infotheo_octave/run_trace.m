function run_trace(method, ds, datadir, outdir, tracedir, seed)
% Run the TRACED copy of a selector (the published code plus logging lines only, see
% trace_patches/) with the same call as run_one.m, and write
%   sfs_fi  : OUTDIR/<ds>_sfs_fi_trace.csv (one row per feature), <ds>_sfs_fi_pairs.csv (one
%             row per comparison of the redundancy stage)
%   ossfs_dd: OUTDIR/<ds>_ossfs_dd_trace.csv (one row per feature), <ds>_ossfs_dd_pairs.csv
%             (one row per comparison of checkPoolRedundancy), <ds>_ossfs_dd_flush.csv (one
%             row per pair of flushDeterPool that moved two features)
%   OUTDIR/<ds>_<method>_selected_traced.csv, to check that tracing changed nothing
  if nargin < 6, seed = 0; end
  global TRACE_FID TRACE_FID2 TRACE_FID3
  warning('off', 'all');
  addpath(tracedir);
  X = dlmread(fullfile(datadir, [ds '_X.csv']), ',');
  y = dlmread(fullfile(datadir, [ds '_y.csv']));
  y = y(:);
  TRACE_FID = fopen(fullfile(outdir, sprintf('%s_%s_trace.csv', ds, method)), 'w');
  TRACE_FID2 = fopen(fullfile(outdir, sprintf('%s_%s_pairs.csv', ds, method)), 'w');
  rand('state', seed);
  switch method
    case 'sfs_fi'
      [sel, tin] = OFSS_FI_mi(X, y, 0.01);
      fclose(TRACE_FID2);
    case 'ossfs_dd'
      fclose(TRACE_FID2);
      TRACE_FID2 = fopen(fullfile(outdir, sprintf('%s_%s_flush.csv', ds, method)), 'w');
      TRACE_FID3 = fopen(fullfile(outdir, sprintf('%s_%s_pairs.csv', ds, method)), 'w');
      [sel, tin] = OSFS_DD_mi2(X, y, 1, 2, 100);
      fclose(TRACE_FID2);
      fclose(TRACE_FID3);
    otherwise
      error('no traced copy for method %s', method);
  end
  fclose(TRACE_FID);
  sel = full(sel(:)');
  f = fopen(fullfile(outdir, sprintf('%s_%s_selected_traced.csv', ds, method)), 'w');
  if ~isempty(sel)
    txt = sprintf('%d,', sel);
    fprintf(f, '%s\n', txt(1:end-1));
  end
  fclose(f);
  printf('%s %s (traced): %d selected, %.3f s\n', ds, method, numel(sel), tin);
end
