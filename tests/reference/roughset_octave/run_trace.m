function run_trace(method, ds, datadir, outdir, tracedir, seed)
% Run the TRACED copy of a selector (the published code plus logging lines only, see
% trace_patches/) with the same call as run_one.m, and write
%   OUTDIR/<ds>_<method>_trace.csv     one row per streamed feature (README.md: columns)
%   OUTDIR/<ds>_<method>_nonsignf.csv  every significance test of non_signf, in visiting order
%   OUTDIR/<ds>_<method>_selected_traced.csv  to check that tracing changed nothing
  if nargin < 6, seed = 0; end
  global TRACE_FID TRACE_FID2
  TRACE_FID = fopen(fullfile(outdir, sprintf('%s_%s_trace.csv', ds, method)), 'w');
  TRACE_FID2 = fopen(fullfile(outdir, sprintf('%s_%s_nonsignf.csv', ds, method)), 'w');
  try
    run_one(method, ds, datadir, outdir, tracedir, '', seed, 1);
  catch err
    fclose(TRACE_FID); fclose(TRACE_FID2);
    rethrow(err);
  end
  fclose(TRACE_FID);
  fclose(TRACE_FID2);
end
